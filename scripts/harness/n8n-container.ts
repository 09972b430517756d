/**
 * The DI services n8n-core 2.8 reaches for while running a node, and what the harness puts there.
 *
 * n8n-core resolves these lazily through `Container.get(...)` (`@n8n/di`):
 * - `InstanceSettings`: read by every `NodeExecutionContext` constructor (instanceId, HMAC secret)
 *   and by `Cipher` (encryption key). The real class reads/WRITES `~/.n8n/config` in its
 *   constructor, so a stand-in is registered: an object with InstanceSettings' prototype (real
 *   getters) and fixed, harmless field values.
 * - `Logger` (`@n8n/backend-common`): replaced by `CapturingLogger` (see logger.ts); also wired
 *   into n8n-workflow's `LoggerProxy`, which n8n-workflow code logs through.
 * - `Cipher`, `ErrorReporter`, `ScheduledTaskManager`, `AiConfig`, `CronLoggingConfig`: left to
 *   the container to construct for real (they only depend on the two above and on env-driven
 *   config classes; the cron manager starts no timer when `activeInterval` is 0, the default).
 * - `SSHClientsManager`: real, built up front so that its cleanup interval can be stopped.
 * - `BinaryDataService`: only touched by binary helpers; not needed by JSON-only nodes, not set.
 */
import { InstanceSettings } from 'n8n-core';
import { SSHClientsManager } from 'n8n-core/dist/execution-engine/ssh-clients-manager';
import { LoggerProxy } from 'n8n-workflow';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { CapturingLogger } from './logger';

/**
 * n8n-core 2.8.1 ships its OWN nested copies of `@n8n/di` (0.10) and `@n8n/backend-common`
 * (node_modules/n8n-core/node_modules/@n8n/...), different from the hoisted ones. Registering in
 * the hoisted container would be silently ignored (and the real InstanceSettings would write
 * ~/.n8n/config). So both are loaded the way n8n-core itself resolves them.
 */
const requireFromCore = createRequire(require.resolve('n8n-core'));
const { Container } = requireFromCore('@n8n/di') as typeof import('@n8n/di');
const { Logger } = requireFromCore('@n8n/backend-common') as typeof import('@n8n/backend-common');

let instanceSettingsRegistered = false;

function registerInstanceSettings(): void {
	if (instanceSettingsRegistered) return;
	const n8nFolder = join(tmpdir(), 'n8n-nodes-personnel-data-harness');
	const standIn = Object.assign(Object.create(InstanceSettings.prototype) as InstanceSettings, {
		n8nFolder,
		staticCacheDir: join(n8nFolder, 'cache'),
		customExtensionDir: join(n8nFolder, 'custom'),
		nodesDownloadDir: join(n8nFolder, 'nodes'),
		settingsFile: join(n8nFolder, 'config'),
		instanceType: 'main',
		instanceRole: 'unset',
		hostId: 'main-harness',
		// `encryptionKey` is a prototype getter over `settings.encryptionKey`.
		settings: { encryptionKey: 'harness-encryption-key-not-a-secret' },
		instanceId: 'harness-instance-id',
		hmacSignatureSecret: 'harness-hmac-secret',
	});
	Container.set(InstanceSettings, standIn);
	// Every ExecuteContext asks the container for the real SSH clients manager (SSH tunnel
	// helpers). Its constructor starts a 60 s cleanup interval, on the host's timers: even
	// unref()ed it would fire forever and hold this test file's whole module registry (n8n-core,
	// the nodes, the simulator), so a jest worker grew by every file it ran and was still
	// tearing down hundreds of MB when jest gave up on it ("A worker process has failed to exit
	// gracefully"). No test uses SSH tunnels: the interval is stopped.
	const sshClients = Container.get(SSHClientsManager) as unknown as { cleanupTimer?: NodeJS.Timeout };
	clearInterval(sshClients.cleanupTimer);
	instanceSettingsRegistered = true;
}

/**
 * Makes `logger` the one n8n-core and n8n-workflow log to. Called before every harness operation
 * so that several runtimes in one test file each capture their own lines (tests run serially).
 */
export function activateN8nContainer(logger: CapturingLogger): void {
	registerInstanceSettings();
	// The real Logger has private fields; the stand-in implements its public surface
	// (error/warn/info/debug/scoped), which is all n8n-core calls.
	Container.set(Logger, logger as unknown as InstanceType<typeof Logger>);
	LoggerProxy.init(logger);
}
