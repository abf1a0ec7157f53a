deg2rad(180) + rad2deg(pi)
