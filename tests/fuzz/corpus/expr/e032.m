['ab' 'cd']
