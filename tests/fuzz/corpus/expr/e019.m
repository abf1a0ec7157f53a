max(v) + min(M(:)) + sum(M) + prod(v) + mean(v)
