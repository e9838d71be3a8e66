// Package suggest owns the "did you mean" of every user-facing name: the
// known names closest to a mistyped flag, config key or task, by an edit
// distance in which an adjacent transposition counts as one edit.
package suggest
