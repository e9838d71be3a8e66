// Package lerobot writes and reads robot episodes in the Hugging Face
// LeRobot dataset format, codebase version v3.0, so that data collected
// with vlmrb (simulated rollouts, scripted experts, camera recordings)
// loads in LeRobot and datasets from LeRobot load in vlmrb.
//
// The layout written, as LeRobot v3.0 defines it:
//
//	DIR/
//	  data/chunk-000/file-000.parquet                 one row per frame
//	  meta/info.json                                  codebase_version, fps, features, splits, paths, totals
//	  meta/tasks.parquet                              task_index + task text (pandas index "task")
//	  meta/episodes/chunk-000/file-000.parquet        one row per episode: length, frame range, video spans
//	  meta/stats.json                                 per-feature min/max/mean/std/count/q01…q99
//	  videos/observation.images.CAM/chunk-000/file-000.mp4   every episode of a camera, back to back
//
// Frame table columns: observation.state and action (list<float32>),
// timestamp (float32, frame_index/fps), frame_index, episode_index, index
// (the global frame number), task_index (int64), and with rewards
// next.reward (float32), next.done and next.success (bool), the gym-style
// keys of LeRobot's simulation datasets. vlmrb adds next.truncated (the
// episode hit its time limit; LeRobot's next.done does not say which) and
// next.observation.state (s_{t+1}; the frame layout has no row for the
// state after an episode's last action), vlmrb.progress (privileged
// task progress of simulated episodes, which vlmrb's oracle scorer rates)
// and vlmrb.camera_time for converted camera recordings: outside
// observation.*, which LeRobot hands to policies as state (the reader also
// takes the observation.* names older datasets used). LeRobot keeps
// features it does not know.
// The episode table has episode_index, tasks (list<string>), length,
// dataset_from_index/dataset_to_index, data/ and meta/episodes/
// chunk_index/file_index, and per video key videos/KEY/chunk_index,
// file_index, from_timestamp and to_timestamp (s into the video file).
// The episode table also holds each episode's statistics in
// stats/FEATURE/STAT columns (min, max, mean, std, count, q01, q10, q50,
// q90, q99), and stats.json the dataset's, quantiles included, computed as
// LeRobot v3.0 computes them (quantiles.go). Everything goes into chunk 000, file 000 of each kind:
// LeRobot's 100 MB/200 MB file-size targets are not enforced, and readers
// follow the episode table's chunk and file columns either way.
//
// Videos are encoded by an ffmpeg subprocess fed raw RGB frames, as
// package hw drives ffmpeg: AV1 through libsvtav1 (yuv420p, GOP 2, CRF 30,
// preset 12: LeRobot's encode_video_frames defaults) when ffmpeg has it
// and every frame is at least 64×64 (SVT-AV1's minimum), else H.264
// through libx264. info.json records the codec per video feature.
//
// What was followed: LeRobot's published v3.0 format — the
// LeRobotDataset v3.0 blog post (huggingface/blog lerobot-datasets-v3.md),
// the constants and path templates of lerobot/datasets/utils.py
// (DEFAULT_DATA_PATH, DEFAULT_VIDEO_PATH, DEFAULT_CHUNK_SIZE 1000), the
// episode-row keys used by lerobot_dataset.py (dataset_from_index,
// dataset_to_index, videos/KEY/from_timestamp …) and info.json files of
// v3.0 datasets on the Hugging Face Hub (feature dtype/shape/names, the
// video info block). LeRobot itself cannot be installed here; the
// repository's CI reads the output back with DuckDB and ffprobe
// (scripts/lerobot-check.sh), not with LeRobot's loader.
//
// Create/AddFrame/EndEpisode/Close write a dataset; nothing appears at the
// destination until Close has written every file into a temporary sibling
// directory and renamed it. ConvertSource turns any frame.Source (a
// folder, video or live camera from package hw) into a one-episode dataset,
// resampled onto the fps grid by the frames' own timestamps. Open and
// ReadFrames read a dataset back, checking info.json, the episode table
// and the frame table against each other; Limits bound what they accept,
// and ReadFrames decodes in batches of 1024 rows, so memory does not grow
// with the file. Parquet is read and written with
// github.com/parquet-go/parquet-go.
//
// A Writer or Dataset is for one goroutine. Package lerobot imports frame
// and nothing else of vlmrb; train uses it for robot-train record and
// train --demos.
package lerobot
