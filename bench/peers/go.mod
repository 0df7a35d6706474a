module github.com/dragoman-dev/dragoman/bench/peers

go 1.26.8

require (
	github.com/dragoman-dev/dragoman v0.0.0
	github.com/ollama/ollama v0.32.15
)

require (
	github.com/bahlo/generic-list-go v0.2.0 // indirect
	github.com/buger/jsonparser v1.1.2 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/mailru/easyjson v0.7.7 // indirect
	github.com/wk8/go-ordered-map/v2 v2.1.8 // indirect
	golang.org/x/crypto v0.43.0 // indirect
	golang.org/x/sys v0.37.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)

replace github.com/dragoman-dev/dragoman => ../..
