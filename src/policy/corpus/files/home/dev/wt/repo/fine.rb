puts 'fine'
