class ReplayBuffer: pass
