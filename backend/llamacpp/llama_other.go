//go:build !(linux && amd64) || dragoman_noembed

package llamacpp

import (
	"fmt"
	"runtime"
)

// bind fails: the binding's by-value trampoline and the npm libraries are
// linux/amd64 only, and a build with -tags dragoman_noembed (a static binary,
// without purego) leaves the engine out.
func bind(dir string) error {
	return fmt.Errorf("this dragoman has no embedded llama.cpp engine: it runs on linux/amd64 only (this is %s/%s) and is left out of builds with -tags dragoman_noembed", runtime.GOOS, runtime.GOARCH)
}

func modelLoadFromFile(path string, p modelParams) llamaModel  { panic("not reached") }
func initFromModel(m llamaModel, p contextParams) llamaContext { panic("not reached") }
func decode(c llamaContext, b *batch) int32                    { panic("not reached") }
func batchFree(b batch)                                        { panic("not reached") }
func progressCallback() uintptr                                { panic("not reached") }
func cString(s string) []byte                                  { return append([]byte(s), 0) }
