cumsum(fliplr(v)) ./ flipud(v')'
