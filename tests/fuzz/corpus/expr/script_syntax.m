% comment
a = 1 ...
  + 2; b = [1 2
3 4];
%{
block comment
%}
c = a';  % transpose, not a string
if k > 1, z = 1; end
for i = 1:3
  q(i) = i;
end
s = "double quoted";, t = {1, 2}; disp(a)
