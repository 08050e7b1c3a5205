package validate

import (
	"hash/maphash"
	"math/bits"
)

// idTable maps node ids (or keys) to the first node with each. It replaces
// a map[string]int32 on the hot paths: open addressing over one compact
// array of (hash tag, node) slots, so a lookup reads one slot and then,
// to confirm, the id itself; a Go map also reads its control word and the
// slot's string header. With 100,000 nodes the ids no longer fit in cache
// and this roughly halves the cost of resolving edge ends.
type idTable struct {
	seed  maphash.Seed
	mask  uint64
	slots []uint64 // tag<<32 | node+1; 0 is empty
	ids   []string // per node
	tags  []uint32 // per node: the tag of its id, to reject guesses cheaply
}

func newIDTable(n int) *idTable {
	size := uint64(1) << bits.Len(uint(2*n+1)) // load factor at most 1/2
	return &idTable{
		seed:  maphash.MakeSeed(),
		mask:  size - 1,
		slots: make([]uint64, size),
		ids:   make([]string, n),
		tags:  make([]uint32, n),
	}
}

func (t *idTable) hash(id string) uint64 { return maphash.String(t.seed, id) }

// add records node i's id; it returns the first node with the same id, or
// -1 when the id is new.
func (t *idTable) add(i int32, id string) int32 {
	h := t.hash(id)
	tag := uint32(h >> 32)
	t.ids[i], t.tags[i] = id, tag
	for s := h & t.mask; ; s = (s + 1) & t.mask {
		v := t.slots[s]
		if v == 0 {
			t.slots[s] = uint64(tag)<<32 | uint64(i+1)
			return -1
		}
		if uint32(v>>32) == tag {
			if j := int32(uint32(v)) - 1; t.ids[j] == id {
				return j
			}
		}
	}
}

// find returns the first node with the id whose hash is h, or -1.
func (t *idTable) find(id string, h uint64) int32 {
	tag := uint32(h >> 32)
	for s := h & t.mask; ; s = (s + 1) & t.mask {
		v := t.slots[s]
		if v == 0 {
			return -1
		}
		if uint32(v>>32) == tag {
			if j := int32(uint32(v)) - 1; t.ids[j] == id {
				return j
			}
		}
	}
}

// lookup returns the first node with the id.
func (t *idTable) lookup(id string) (int32, bool) {
	i := t.find(id, t.hash(id))
	return i, i >= 0
}
