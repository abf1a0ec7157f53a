linspace(0, 1, 5)
