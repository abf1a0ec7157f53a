det(M) + norm(v) + trace_is_unknown(1)
