logical(2) + double('a') + single(1.5)
