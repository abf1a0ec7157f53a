v(end-1) + M(end,1) + M(:,2)'
