package golden

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// Shard is a stable slice of a suite: shard Index of Count, 1-based, as
// `--shard 2/4` names it. The zero Shard is the whole suite.
//
// A case belongs to the shard given by a hash of its case file's path below
// the folder named on the command line and its name, so adding or removing
// a case never moves another case between shards, and every worker of a
// sharded run must name the same folders.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// ParseShard reads "K/N" with 1 ≤ K ≤ N.
func ParseShard(s string) (Shard, error) {
	k, n, ok := strings.Cut(s, "/")
	ki, err1 := strconv.Atoi(k)
	ni, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || ni < 1 || ki < 1 || ki > ni {
		return Shard{}, fmt.Errorf("shard %q: write K/N with 1 ≤ K ≤ N, e.g. 2/4 for the second of four", s)
	}
	return Shard{Index: ki, Count: ni}, nil
}

// All reports whether the shard is the whole suite.
func (sh Shard) All() bool { return sh.Count <= 1 }

// String formats the shard as "K/N", or "all".
func (sh Shard) String() string {
	if sh.All() {
		return "all"
	}
	return fmt.Sprintf("%d/%d", sh.Index, sh.Count)
}

// Contains reports whether c belongs to the shard.
func (sh Shard) Contains(c *Case) bool {
	if sh.All() {
		return true
	}
	return shardOf(c.key, sh.Count) == sh.Index
}

// shardOf maps a key to a shard number in 1..n with FNV-1a, which is fixed
// by its specification, so the same case lands in the same shard on every
// machine and release.
func shardOf(key string, n int) int {
	h := fnv.New64a()
	h.Write([]byte(key))
	return int(h.Sum64()%uint64(n)) + 1
}
