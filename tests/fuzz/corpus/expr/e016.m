reshape(1:6, 2, 3)
