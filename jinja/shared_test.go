package jinja

import (
	"testing"

	"github.com/dragoman-dev/dragoman/internal/fixtures"
)

// sharedDir is ../shared beside the repository, or $DRAGOMAN_SHARED.
func sharedDir(t testing.TB) string {
	return fixtures.Require(t)
}
