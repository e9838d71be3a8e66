// Package pkgdoc holds the repository-wide test that every package has a
// doc.go file carrying its package comment. It has no exported API.
package pkgdoc
