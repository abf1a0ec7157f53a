transpose(M) + times(M, M) + plus(M, 1) + minus(M, 1) + mtimes(M, M) + power(M, 2) + rdivide(M, 2)
