sin(pi/6) + cos(0) + tan(1) + asin(1) + acos(0) + atan(1) + sinh(1) + cosh(1) + tanh(1)
