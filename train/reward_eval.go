package train

import (
	"context"
	"image"
	"math"

	"github.com/vlmrb/vlmrb/tasks"
	"github.com/vlmrb/vlmrb/vlmreward"
)

// expertRank rolls the task's scripted expert through one episode of env
// (the evaluation env), computes the current reward of every s_{t+1}
// frame (every vlmrmStride-th for VLM-RM, which pays a request per frame)
// and returns its Spearman correlation with privileged progress: how well
// the reward the agent trains on orders states along a successful
// trajectory (1 = perfectly), and the mean reward of the frames in each
// task stage. NaN (and nil) before ERL-VLM's first fit.
func (s *rewardShaper) expertRank(ctx context.Context, env *tasks.Env, seed uint64) (float64, map[int]float64, error) {
	if s.learner != nil && !s.learner.Trained() {
		return math.NaN(), nil, nil
	}
	const vlmrmStride = 5
	obs, _ := env.Reset(seed)
	pol := env.Expert()
	act := make([]float64, env.Spec().ActDim)
	img := image.NewRGBA(image.Rect(0, 0, s.cfg.RM.FrameSize, s.cfg.RM.FrameSize))
	var rew, prog, stage []float64
	var px []uint8
	var frames []image.Image
	for t := 0; ; t++ {
		pol.Act(obs, act)
		next, _, term, trunc, info, err := env.Step(act)
		if err != nil {
			return math.NaN(), nil, err
		}
		if s.learner != nil || t%vlmrmStride == 0 || term || trunc {
			if err := s.cam.RenderState(env.Model(), env.Data(), img); err != nil {
				return math.NaN(), nil, err
			}
			prog = append(prog, info.Get("progress"))
			stage = append(stage, info.Get("stage"))
			if s.learner != nil {
				px = vlmreward.Downscale(px, img, s.learner.Model.Cfg.CNN.Size)
			} else {
				frames = append(frames, cloneRGBA(img))
			}
		}
		obs = next
		if term || trunc {
			break
		}
	}
	rew = make([]float64, len(prog))
	if s.learner != nil {
		out := make([]float32, len(prog))
		s.learner.Model.Predict(out, px, len(prog))
		for i, v := range out {
			rew[i] = s.learner.Relabel.Reward(v)
		}
	} else {
		embs, err := s.emb.EmbedImages(ctx, frames)
		if err != nil {
			return math.NaN(), nil, err
		}
		for i, e := range embs {
			if rew[i], err = s.vrm.Reward(e); err != nil {
				return math.NaN(), nil, err
			}
		}
	}
	sum, cnt := map[int]float64{}, map[int]float64{}
	for i, k := range stage {
		sum[int(k)] += rew[i]
		cnt[int(k)]++
	}
	for k := range sum {
		sum[k] /= cnt[k]
	}
	return vlmreward.Spearman(rew, prog), sum, nil
}
