sleep 10
