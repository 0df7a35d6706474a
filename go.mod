module github.com/dragoman-dev/dragoman

go 1.26.8
