module cardroom.dev/web

go 1.26.7
