size(M, 1) + numel(v) + length(M) + isempty(e)
