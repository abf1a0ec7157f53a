zeros(2,3) + ones(2,3) .* eye(2,3)
