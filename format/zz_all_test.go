package format

import "testing"

func BenchmarkZZAllFamilies(b *testing.B) {
	tools := bfclChatTools(b, 20)
	for _, f := range Families() {
		if f.Calls == nil {
			continue
		}
		b.Run(f.ID, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := f.Constrain(tools, ToolChoice{Mode: "auto"}, false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
