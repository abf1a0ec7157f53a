Inf - inf + NaN * nan + eps
