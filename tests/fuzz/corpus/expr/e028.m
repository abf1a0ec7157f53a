abs(-3) + sign(-2) + real(2)
