/**
 * The demo's example "approve an import before it writes" (demo/workflows/9-approve-an-import-before-writing.json)
 * in real n8n: Create or Update with Write Mode › Preview Only, the summary in a Wait node's form,
 * Merge (Choose Branch) and Apply a Preview. The form is answered over HTTP as a browser submits it;
 * the simulator's request log says what was written. The checks are demo/approval.ts's, which
 * `npm run demo -- --once` runs too.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import { approveImport, approveWithAnEditedItem, prepareApproval, rejectImport, withAnEditBeforeTheApply, type ApprovalScenario } from '../../demo/approval';
import { timeZone } from '../../demo/log';
import { startSimulatorProcess, type SimulatorProcess } from '../../demo/simulatorProcess';
import { demoCredential, findWorkflow, IDS, APPROVAL_NODES, findNode, loadWorkflows } from '../../demo/workflows';
import { assertPackageBuilt, importCredentials, importWorkflow, loadProblems, prepareUserFolder, startServer, type N8nServer, type N8nUserFolder } from '../../scripts/n8n/driver';

declare const N8N_KEY: string;
const key = N8N_KEY;

assertPackageBuilt();

/** The example's copy with a Code node that edits one approved row before the apply. */
const EDITED_ID = 'pdE2eApproveEdit';

describe(`the approval example in ${key}`, () => {
	let sim: SimulatorProcess;
	let folder: N8nUserFolder;
	let server: N8nServer | undefined;
	let filesDir = '';
	let approval: ApprovalScenario;

	beforeAll(async () => {
		sim = await startSimulatorProcess();
		filesDir = mkdtempSync(path.join(tmpdir(), 'pd-e2e-approval-'));
		const file = path.join(filesDir, 'employees-to-approve.csv');
		const workflow = structuredClone(findWorkflow(loadWorkflows(), IDS.approval));
		findNode(workflow, APPROVAL_NODES.read).parameters.fileSelector = file;
		folder = await prepareUserFolder(key, { env: { N8N_RESTRICT_FILE_ACCESS_TO: filesDir, GENERIC_TIMEZONE: timeZone() } });
		await importCredentials(folder, [demoCredential(sim)]);
		await importWorkflow(folder, [workflow, withAnEditBeforeTheApply(workflow, EDITED_ID)]);
		server = await startServer(folder);
		expect(loadProblems(server.logs())).toEqual([]);
		approval = await prepareApproval(sim.client, file);
	}, 240_000);

	afterAll(async () => {
		await server?.stop();
		folder?.cleanup();
		await sim?.stop();
		if (filesDir) rmSync(filesDir, { recursive: true, force: true });
	});

	test('rejected: the preview sends only the lookup, the form shows its counts, and nothing is written', async () => {
		const previewed = await rejectImport(server as N8nServer, sim.client, approval);
		expect(previewed.requests.lookups).toHaveLength(1);
		expect(previewed.summary).toMatchObject(approval.expected);
	});

	test('approved: exactly the previewed writes (POST for the new, PATCH for the changed), and the employees read as the file says', async () => {
		const { writes } = await approveImport(server as N8nServer, sim.client, approval);
		expect(writes.creates).toHaveLength(approval.expected.create);
		expect(writes.patches).toHaveLength(approval.expected.update);
		expect(writes.replaces).toEqual([]);
	});

	test('approved, then one row edited before the apply (its body and changes together): that row is refused by name, the others are written as previewed', async () => {
		// A new file: the approved run above wrote the last one.
		approval = await prepareApproval(sim.client, path.join(filesDir, 'employees-to-approve.csv'));
		const { refused, writes } = await approveWithAnEditedItem(server as N8nServer, sim.client, approval, EDITED_ID);
		expect(refused).toHaveLength(1);
		expect(writes.creates).toHaveLength(approval.expected.create);
		expect(writes.patches).toHaveLength(approval.expected.update - 1);
	});
});
