/**
 * Headless driver for a real n8n (installed by ../install.sh into .n8n-cache/<key>/).
 *
 * Typical use:
 *   const n8n = await prepareUserFolder('n8n-2.8.4');           // fresh folder, package installed
 *   await importCredentials(n8n, [{ id: 'cred1', name: 'PD', type: 'personnelDataApi', data: {...} }]);
 *   await importWorkflow(n8n, workflow);
 *   const result = await executeWorkflow(n8n, workflow.id);     // `n8n execute --id`
 *   nodeItems(result, 'Personnel Data');                        // output items' json
 *   const server = await startServer(n8n);                      // `n8n start`, owner set up
 *   const execId = await server.runFromTrigger(workflow.id, 'Trigger');
 *   const execution = await server.waitForExecution(execId);
 *   await server.stop(); await n8n.cleanup();
 */
export * from './installs';
export * from './processes';
export * from './userFolder';
export * from './scriptInstall';
export * from './cli';
export * from './server';
export * from './executions';
export * from './publication';
export * from './features';
