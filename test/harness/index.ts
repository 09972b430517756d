export {
	NodeRuntime,
	type CredentialTestOptions,
	type ExecuteOptions,
	type ExecuteResult,
	type ListSearchCall,
	type LoadOptionsCall,
	type NodeRuntimeOptions,
	type PollOptions,
	type PollResult,
	type ToolCallOptions,
	type ToolCallResult,
	type PollSession,
	type ScheduledPollOptions,
	type ScheduledPollResult,
} from './node-runtime';
export {
	CredentialStore,
	CredentialTypeRegistry,
	HarnessCredentialsHelper,
	type CredentialUpdate,
} from './credentials-helper';
export { CapturingLogger, formatLogEntry, safeStringify, type LogEntry } from './logger';
