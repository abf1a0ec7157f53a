mod(-7, 3) + rem(-7, 3) + fix(-2.5) + round(2.5) + floor(-0.5) + ceil(0.5)
