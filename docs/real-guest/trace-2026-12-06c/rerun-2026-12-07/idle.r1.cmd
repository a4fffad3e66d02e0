sleep 2
