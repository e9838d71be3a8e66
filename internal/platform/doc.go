// Package platform describes the machine and build a process runs on: CPU
// model, Go version, the commit the binary was built from, and the BLAS
// kernel its networks use. A training run is a function of its config and
// seed only for a fixed BLAS kernel (OpenBLAS dispatches its GEMMs by CPU,
// and different kernels sum in different orders), so every run records
// this description, and `robot-train version` prints it.
package platform
