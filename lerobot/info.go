package lerobot

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Layout constants of LeRobot codebase v3.0 (lerobot/datasets/utils.py:
// DEFAULT_CHUNK_SIZE, DEFAULT_DATA_PATH, DEFAULT_VIDEO_PATH,
// DEFAULT_DATA_FILE_SIZE_IN_MB, DEFAULT_VIDEO_FILE_SIZE_IN_MB).
const (
	CodebaseVersion    = "v3.0"
	ChunksSize         = 1000 // files per chunk directory
	DataPath           = "data/chunk-{chunk_index:03d}/file-{file_index:03d}.parquet"
	VideoPath          = "videos/{video_key}/chunk-{chunk_index:03d}/file-{file_index:03d}.mp4"
	DataFilesSizeInMB  = 100
	VideoFilesSizeInMB = 200
)

// Column names, as LeRobot names them (the gym-style next.* keys are those
// of LeRobot's sim and gym_manipulator recordings).
const (
	KeyState      = "observation.state"
	KeyAction     = "action"
	KeyTimestamp  = "timestamp"
	KeyFrameIndex = "frame_index"
	KeyEpisode    = "episode_index"
	KeyIndex      = "index"
	KeyTaskIndex  = "task_index"
	KeyReward     = "next.reward"
	KeyDone       = "next.done"
	KeySuccess    = "next.success"
	// KeyTruncated and KeyNextState are vlmrb's additions (LeRobot keeps
	// extra features): whether next.done was a time limit, and s_{t+1}
	// (the true final observation on an episode's last frame, which the
	// frame layout has no row for). Readers of other datasets do without.
	KeyTruncated = "next.truncated"
	KeyNextState = "next.observation.state"
	// KeyProgress is privileged task progress in [0, 1] at the observation
	// (float64; simulation only), which the oracle scorer rates clips by.
	// It is outside observation.*, which LeRobot hands to policies as
	// state: a policy must not see privileged values.
	KeyProgress = "vlmrb.progress"
	// KeyCameraTime is the source frame's own timestamp (s since the
	// first frame) of a converted camera recording (outside observation.*
	// for the same reason).
	KeyCameraTime = "vlmrb.camera_time"
	// LegacyKeyProgress and LegacyKeyCameraTime are where datasets written
	// before vlmrb.* kept them; the reader takes either.
	LegacyKeyProgress   = "observation.progress"
	LegacyKeyCameraTime = "observation.camera_time"
	// ImagePrefix starts every camera's video key.
	ImagePrefix = "observation.images."
)

// Feature is one entry of info.json's features: dtype (float32, int64,
// bool, video, …), shape and per-dimension names (null when unnamed).
type Feature struct {
	DType string     `json:"dtype"`
	Shape []int      `json:"shape"`
	Names []string   `json:"names"`
	Info  *VideoInfo `json:"info,omitempty"`
}

// VideoInfo is a video feature's info block.
type VideoInfo struct {
	Height     int     `json:"video.height"`
	Width      int     `json:"video.width"`
	Codec      string  `json:"video.codec"`
	PixFmt     string  `json:"video.pix_fmt"`
	IsDepthMap bool    `json:"video.is_depth_map"`
	FPS        float64 `json:"video.fps"`
	Channels   int     `json:"video.channels"`
	HasAudio   bool    `json:"has_audio"`
}

// Info is meta/info.json.
type Info struct {
	CodebaseVersion    string             `json:"codebase_version"`
	RobotType          *string            `json:"robot_type"`
	TotalEpisodes      int                `json:"total_episodes"`
	TotalFrames        int                `json:"total_frames"`
	TotalTasks         int                `json:"total_tasks"`
	ChunksSize         int                `json:"chunks_size"`
	DataFilesSizeInMB  int                `json:"data_files_size_in_mb"`
	VideoFilesSizeInMB int                `json:"video_files_size_in_mb"`
	FPS                float64            `json:"fps"`
	Splits             map[string]string  `json:"splits"`
	DataPath           string             `json:"data_path"`
	VideoPath          *string            `json:"video_path"`
	Features           map[string]Feature `json:"features"`
}

// VideoKeys returns the video features' keys in sorted order.
func (in *Info) VideoKeys() []string {
	var ks []string
	for k, f := range in.Features {
		if f.DType == "video" {
			ks = append(ks, k)
		}
	}
	slices.Sort(ks)
	return ks
}

// DataFile is the relative path of data file (chunk, file).
func (in *Info) DataFile(chunk, file int64) string {
	return expand(in.DataPath, "", chunk, file)
}

// VideoFile is the relative path of video key's file (chunk, file).
func (in *Info) VideoFile(key string, chunk, file int64) string {
	if in.VideoPath == nil {
		return ""
	}
	return expand(*in.VideoPath, key, chunk, file)
}

// expand fills LeRobot's Python format templates; only the three fields
// and the :03d width that v3.0 uses are supported.
func expand(tmpl, key string, chunk, file int64) string {
	r := strings.NewReplacer(
		"{video_key}", key,
		"{chunk_index:03d}", fmt.Sprintf("%03d", chunk),
		"{file_index:03d}", fmt.Sprintf("%03d", file),
	)
	return r.Replace(tmpl)
}

// checkTemplate rejects path templates this reader cannot expand or that
// would leave the dataset directory.
func checkTemplate(name, tmpl string) error {
	rest := strings.NewReplacer("{video_key}", "", "{chunk_index:03d}", "", "{file_index:03d}", "").Replace(tmpl)
	if strings.ContainsAny(rest, "{}") {
		return fmt.Errorf("%s %q uses template fields other than {video_key}, {chunk_index:03d}, {file_index:03d}", name, tmpl)
	}
	if strings.HasPrefix(tmpl, "/") || strings.Contains(tmpl, "..") {
		return fmt.Errorf("%s %q points outside the dataset directory", name, tmpl)
	}
	return nil
}

func marshalInfo(in *Info) ([]byte, error) {
	b, err := json.MarshalIndent(in, "", "    ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
