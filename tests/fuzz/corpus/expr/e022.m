polyval([1 2 3], 2) + atan2(1, 2) + hypot(3, 4)
