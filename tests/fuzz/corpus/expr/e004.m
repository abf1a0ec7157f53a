[a -b] + [a - b]
