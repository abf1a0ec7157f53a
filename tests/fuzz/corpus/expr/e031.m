'it''s a string'
