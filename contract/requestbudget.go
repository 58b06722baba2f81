package contract

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/internal/strict"
)

// BudgetBounds bound what a request's counter, capacity and reserve may
// ask for: a service is started with them, so that a caller cannot make
// it build contracts of any size.
type BudgetBounds struct {
	// Counters are the counters a request may name; nil allows every
	// counter the definition sets limits for.
	Counters []string
	// MaxCapacity is the largest capacity a request may ask for; 0 means
	// budget.MaxCapacity.
	MaxCapacity int
}

// RequestBudget resolves the counter and limits of a build from base
// (the front end's own counter and overrides) and the request f's
// counter, capacity and reserve over them. A request that names another
// counter than base's starts from the definition's limits for it: base's
// overrides are counted in base's units. data is the request's text and
// name its name, for the position of a key that is refused.
//
// A counter outside bounds.Counters, a capacity over bounds.MaxCapacity,
// or limits that are out of range (a reserve not below the capacity) are
// a *RequestError (errors.Is(err, ErrBadRequest)) whose Field is the
// request key to change. Any other error is base's own, as Config.Budget
// returns it.
func RequestBudget(name string, data []byte, f *RequestFile, base Config, def *Definition, bounds BudgetBounds) (budget.Counter, budget.Limits, error) {
	baseCounter := base.Counter
	if baseCounter == "" {
		baseCounter = def.Budget.DefaultCounter
	}
	if f == nil || (f.Counter == "" && f.Capacity == nil && f.Reserve == nil) {
		return base.Budget(def)
	}
	refuse := func(field, msg, hint string) (budget.Counter, budget.Limits, error) {
		line, col := keyPos(data, field)
		return nil, budget.Limits{}, &RequestError{Path: name, Line: line, Col: col, Field: field, Msg: msg, Hint: hint}
	}
	c := base
	if f.Counter != "" && f.Counter != baseCounter {
		allowed := bounds.Counters
		if allowed == nil {
			for _, n := range budget.Names() {
				if _, ok := def.Budget.Counters[n]; ok {
					allowed = append(allowed, n)
				}
			}
		}
		if !slices.Contains(allowed, f.Counter) {
			return refuse("counter", fmt.Sprintf("counter %q is not one this server counts with", f.Counter),
				"use one of "+strings.Join(allowed, ", "))
		}
		c = Config{Counter: f.Counter}
	}
	maxCap := bounds.MaxCapacity
	if maxCap <= 0 {
		maxCap = budget.MaxCapacity
	}
	if f.Capacity != nil {
		if *f.Capacity > maxCap {
			return refuse("capacity", fmt.Sprintf("capacity %d is over this server's maximum of %d", *f.Capacity, maxCap),
				fmt.Sprintf("ask for at most %d", maxCap))
		}
		c.Capacity = f.Capacity
	}
	if f.Reserve != nil {
		c.Reserve = f.Reserve
	}
	counter, limits, err := c.Budget(def)
	if err == nil {
		return counter, limits, nil
	}
	if re, ok := errors.AsType[*budget.RangeError](err); ok {
		field := re.Limit
		if (field == budget.LimitReserve && f.Reserve == nil) || field == budget.LimitWrapper {
			// Not a value the request gave: the capacity it asked for
			// is below the limit it keeps.
			field = "capacity"
		}
		hint := ""
		if re.Capacity > 0 {
			hint = fmt.Sprintf(`give a "reserve" below %d, or a larger "capacity"`, re.Capacity)
		}
		return refuse(field, err.Error(), hint)
	}
	return nil, budget.Limits{}, err
}

// keyPos is the line and column of the top-level key of a request's
// text, or 0, 0: a refused key is found again only when it is refused.
func keyPos(data []byte, key string) (line, col int) {
	doc, err := strict.ParseJSON(data)
	if err != nil {
		return 0, 0
	}
	root := strict.Root(doc)
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k := root.Content[i]; k.Value == key {
			return k.Line, k.Column
		}
	}
	return 0, 0
}
