[M M; M M](2,:)
