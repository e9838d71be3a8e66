package render

// ViewerControls lists the keyboard and mouse controls of RunViewer's
// window, one per line, for help texts (robot-train view -h).
const ViewerControls = `  left-drag                    orbit the free camera
  right-drag, Shift+left-drag  pan
  mouse wheel                  zoom
  Space                        pause / resume the simulation
  N, Right arrow               step once while paused
  C                            next camera (free camera, then the fixed ones)
  R                            reset the free camera
  Esc, Q                       close the window
`
