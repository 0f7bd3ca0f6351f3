module cardroom.dev/deploy

go 1.26.7
