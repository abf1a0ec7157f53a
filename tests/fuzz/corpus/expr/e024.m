sqrt(-1) + log(0) + log10(100) + log2(8) + exp(1)
