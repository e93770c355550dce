export { JobEngine, type JobDatabase, type JobEngineOptions, type JobKind, type JobState, type JobStatus, type RunningJob } from './engine';
