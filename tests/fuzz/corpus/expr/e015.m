repmat(v, 2, 1)
