/**
 * A faithful, in-memory equivalent of n8n's CLI credentials helper
 * (`packages/cli/src/credentials-helper.ts` in n8n-io/n8n), which is the one piece of the runtime
 * that n8n-core does not ship. Everything a node does with credentials goes through it:
 *
 *   context.getCredentials()          -> getDecrypted()        (stored data + defaults + expressions)
 *   helpers.httpRequestWithAuthentication (n8n-core request-helper-functions.ts):
 *       preAuthentication(…, credentialsExpired=false)  -> maybe fetch a token, persist it
 *       authenticate()                                 -> apply the credential's `authenticate`
 *       on a 401: preAuthentication(…, true), authenticate(), retry once
 *
 * What is left out, because a community package cannot reach it: the database (replaced by
 * `CredentialStore`), credential overwrites (admin-level env config; none here), external secrets,
 * dynamic (per-end-user) credential resolution and the AI gateway (EE / cloud features), OAuth1/2
 * token data handling beyond keeping `oauthTokenData`.
 *
 * Kept on purpose, because it changes what a node sees:
 * - Stored data is encrypted with n8n-core's real `Credentials`/`Cipher` and JSON round-tripped,
 *   exactly like the DB column: values returned by preAuthentication must survive JSON.
 * - `getDecrypted` re-applies the credential type's properties with
 *   `NodeHelpers.getNodeParameters`, so keys that are not declared properties of the credential
 *   type (e.g. an `expiresAt` returned by preAuthentication) are persisted but DROPPED from what
 *   the node and the next preAuthentication receive.
 * - Generic `authenticate` values are resolved with n8n's expression engine only when they start
 *   with `=` (n8n-workflow `isExpression`); `'Bearer {{$credentials.accessToken}}'` without the `=`
 *   is sent literally, as in n8n.
 */
import { Credentials, getAdditionalKeys } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	ICredentialsExpressionResolveValues,
	IDataObject,
	IExecuteData,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeParameters,
	INodeProperties,
	INodeType,
	INodeTypes,
	IRequestOptionsSimplified,
	IVersionedNodeType,
	IWorkflowDataProxyAdditionalKeys,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import {
	ICredentialsHelper,
	NodeHelpers,
	UnexpectedError,
	Workflow,
	isExpression,
} from 'n8n-workflow';

/** Registry of credential types (stands in for the CLI's `CredentialTypes`). */
export class CredentialTypeRegistry {
	private readonly types = new Map<string, ICredentialType>();

	constructor(types: ICredentialType[]) {
		for (const type of types) this.types.set(type.name, type);
	}

	getByName(name: string): ICredentialType {
		const type = this.types.get(name);
		if (!type) throw new UnexpectedError(`Unknown credential type "${name}"`);
		return type;
	}

	/** Same recursion as the CLI's `CredentialTypes.getParentTypes` (`extends` chain). */
	getParentTypes(name: string): string[] {
		const type = this.types.get(name);
		if (type?.extends === undefined) return [];
		const parents: string[] = [];
		for (const parent of type.extends) parents.push(parent, ...this.getParentTypes(parent));
		return parents;
	}
}

/** One row of the `credentials_entity` table, as far as the helper reads it. */
export interface StoredCredentialRow {
	id: string;
	name: string;
	type: string;
	/** Encrypted JSON, as n8n stores it. */
	data: string;
}

export interface CredentialUpdate {
	id: string;
	type: string;
	/** Decrypted copy of what was written. */
	data: ICredentialDataDecryptedObject;
}

/** The credentials table, in memory. Tests read it back through `NodeRuntime.storedCredentials`. */
export class CredentialStore {
	private readonly rows = new Map<string, StoredCredentialRow>();
	private nextId = 1;
	/** Every `updateCredentials` write, in order (lets tests count token refreshes). */
	readonly updates: CredentialUpdate[] = [];

	save(
		type: string,
		data: ICredentialDataDecryptedObject,
		details: { id?: string; name?: string } = {},
	): INodeCredentialsDetails {
		const id = details.id ?? String(this.nextId++);
		const name = details.name ?? `${type} account`;
		const credentials = new Credentials({ id, name }, type);
		credentials.setData(data);
		this.rows.set(id, { id, name, type, data: credentials.getDataToSave().data as string });
		return { id, name };
	}

	find(id: string, type: string): StoredCredentialRow | undefined {
		const row = this.rows.get(id);
		return row && row.type === type ? row : undefined;
	}

	findByType(type: string): StoredCredentialRow | undefined {
		return [...this.rows.values()].find((row) => row.type === type);
	}

	update(id: string, type: string, encryptedData: string): void {
		const row = this.find(id, type);
		if (!row) throw new UnexpectedError(`Credential ${id} of type ${type} not found`);
		row.data = encryptedData;
	}

	decrypt(row: StoredCredentialRow): ICredentialDataDecryptedObject {
		return new Credentials({ id: row.id, name: row.name }, row.type, row.data).getData();
	}
}

/**
 * Node types used only to build the throw-away workflow in which credential expressions are
 * resolved (the CLI's `createMockNodeTypes`): one type, `mock`, without properties.
 */
const mockNodeType: INodeType = {
	description: {
		displayName: 'Mock',
		name: 'mock',
		group: [],
		version: 1,
		description: '',
		defaults: {},
		inputs: [],
		outputs: [],
		properties: [],
	},
};
const mockNodeTypes: INodeTypes = {
	getByName: (): INodeType | IVersionedNodeType => mockNodeType,
	getByNameAndVersion: (): INodeType => mockNodeType,
	getKnownTypes: (): IDataObject => ({}),
};
const mockNode: INode = {
	id: 'mock',
	name: '',
	typeVersion: 1,
	type: 'mock',
	position: [0, 0],
	parameters: {},
};

export class HarnessCredentialsHelper extends ICredentialsHelper {
	constructor(
		private readonly credentialTypes: CredentialTypeRegistry,
		private readonly store: CredentialStore,
	) {
		super();
	}

	/** Same as n8n: a function `authenticate` is called; a generic one is applied key by key. */
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		incomingRequestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow: Workflow,
		node: INode,
	): Promise<IHttpRequestOptions> {
		const requestOptions = incomingRequestOptions as IHttpRequestOptions;
		const credentialType = this.credentialTypes.getByName(typeName);
		const { authenticate } = credentialType;
		if (authenticate === undefined) return requestOptions;

		if (typeof authenticate === 'function') {
			return await authenticate(credentials, requestOptions);
		}

		if (requestOptions.headers === undefined) requestOptions.headers = {};
		if (authenticate.type === 'generic') {
			// `properties` is { headers?, qs?, body?, auth? }, each a flat record of (maybe expression) strings.
			const target = requestOptions as unknown as Record<string, Record<string, unknown> | undefined>;
			for (const [outerKey, outerValue] of Object.entries(authenticate.properties)) {
				for (const [key, value] of Object.entries(outerValue as Record<string, unknown>)) {
					const keyResolved = this.resolveValue(key, { $credentials: credentials }, workflow, node);
					const valueResolved = this.resolveValue(
						value as string,
						{ $credentials: credentials },
						workflow,
						node,
					);
					target[outerKey] ??= {};
					(target[outerKey] as Record<string, unknown>)[keyResolved] = valueResolved;
				}
			}
		}
		return requestOptions;
	}

	/**
	 * n8n's rule, verbatim in substance: find the credential type's hidden `expirable` property; run
	 * `preAuthentication` only if that property is `''`, or the caller says the credentials
	 * expired (the 401 retry), or this is the credentials tester's temp node. The returned object
	 * must contain the expirable property, otherwise nothing is saved or merged. Everything it
	 * returns is merged into the credentials and the whole object is written to the store.
	 */
	async preAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		node: INode,
		credentialsExpired: boolean,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const credentialType = this.credentialTypes.getByName(typeName);

		const expirableProperty = credentialType.properties.find(
			(property) => property.type === 'hidden' && property?.typeOptions?.expirable === true,
		);
		if (expirableProperty?.name === undefined) return undefined;

		// n8n's check for "this is a credential test". NOTE: in n8n 1.x/2.x the tester's node type
		// comes from the lazy loader whose description name is the short `noOp`, so in practice
		// this is false and a credential test does NOT force a new token (see NodeRuntime.testCredential).
		const isTestingCredentials =
			node?.parameters?.temp === '' && node?.type === 'n8n-nodes-base.noOp';

		if (typeof credentialType.preAuthentication !== 'function') return undefined;
		if (
			credentials[expirableProperty.name] === '' ||
			credentialsExpired ||
			isTestingCredentials
		) {
			const output = await credentialType.preAuthentication.call(helpers, credentials);

			// "if there is data in the output, make sure the returned property is the expirable
			// property else the database will not get updated"
			if (output[expirableProperty.name] === undefined) return undefined;

			if (node.credentials) {
				await this.updateCredentials(
					node.credentials[credentialType.name],
					credentialType.name,
					Object.assign(credentials, output),
				);
				return Object.assign(credentials, output);
			}
		}
		return undefined;
	}

	/** Resolves `=`-prefixed values with n8n's expression engine; others are returned as they are. */
	private resolveValue(
		parameterValue: string,
		additionalKeys: IWorkflowDataProxyAdditionalKeys,
		workflow: Workflow,
		node: INode,
	): string {
		if (!isExpression(parameterValue)) return parameterValue;
		const returnValue = workflow.expression.getSimpleParameterValue(
			node,
			parameterValue,
			'internal',
			additionalKeys,
			undefined,
			'',
		);
		if (!returnValue) return '';
		return returnValue.toString();
	}

	getParentTypes(typeName: string): string[] {
		return this.credentialTypes.getParentTypes(typeName);
	}

	async getCredentials(nodeCredential: INodeCredentialsDetails, type: string): Promise<Credentials> {
		const row = this.getRow(nodeCredential, type);
		return new Credentials({ id: row.id, name: row.name }, row.type, row.data);
	}

	private getRow(nodeCredential: INodeCredentialsDetails, type: string): StoredCredentialRow {
		if (!nodeCredential.id) {
			throw new UnexpectedError(`Credential "${nodeCredential.name}" of type "${type}" has no ID.`);
		}
		const row = this.store.find(nodeCredential.id, type);
		if (!row) {
			throw new UnexpectedError(
				`Credential with ID "${nodeCredential.id}" does not exist for type "${type}".`,
			);
		}
		return row;
	}

	getCredentialsProperties(type: string): INodeProperties[] {
		const credentialTypeData = this.credentialTypes.getByName(type);
		if (credentialTypeData.extends === undefined) {
			// n8n adds the special OAuth parameter for the two OAuth base types.
			if (['oAuth1Api', 'oAuth2Api'].includes(type)) {
				return [
					...credentialTypeData.properties,
					{ displayName: 'oauthTokenData', name: 'oauthTokenData', type: 'json', required: false, default: {} },
				];
			}
			return credentialTypeData.properties;
		}
		const combined: INodeProperties[] = [];
		for (const parent of credentialTypeData.extends) {
			NodeHelpers.mergeNodeProperties(combined, this.getCredentialsProperties(parent));
		}
		// The properties defined on the child take precedence.
		NodeHelpers.mergeNodeProperties(combined, credentialTypeData.properties);
		return combined;
	}

	async getDecrypted(
		additionalData: IWorkflowExecuteAdditionalData,
		nodeCredentials: INodeCredentialsDetails,
		type: string,
		mode: WorkflowExecuteMode,
		executeData?: IExecuteData,
		raw?: boolean,
		expressionResolveValues?: ICredentialsExpressionResolveValues,
	): Promise<ICredentialDataDecryptedObject> {
		const credentials = await this.getCredentials(nodeCredentials, type);
		const decryptedDataOriginal = credentials.getData();
		if (raw === true) return decryptedDataOriginal;
		return await this.applyDefaultsAndOverwrites(
			additionalData,
			decryptedDataOriginal,
			type,
			mode,
			executeData,
			expressionResolveValues,
		);
	}

	/** Defaults from the credential type, then expressions (`={{…}}`) in the stored values. */
	async applyDefaultsAndOverwrites(
		additionalData: IWorkflowExecuteAdditionalData,
		decryptedDataOriginal: ICredentialDataDecryptedObject,
		type: string,
		mode: WorkflowExecuteMode,
		executeData?: IExecuteData,
		expressionResolveValues?: ICredentialsExpressionResolveValues,
	): Promise<ICredentialDataDecryptedObject> {
		const credentialsProperties = this.getCredentialsProperties(type);

		// (No credential overwrites are configured in the harness: n8n's `applyOverwrite` is identity then.)
		let decryptedData = NodeHelpers.getNodeParameters(
			credentialsProperties,
			decryptedDataOriginal as INodeParameters,
			true,
			false,
			null,
			null,
		) as ICredentialDataDecryptedObject;

		if (decryptedDataOriginal.oauthTokenData !== undefined) {
			decryptedData.oauthTokenData = decryptedDataOriginal.oauthTokenData;
		}

		const additionalKeys = getAdditionalKeys(additionalData, mode, null, { secretsEnabled: false });

		if (expressionResolveValues) {
			try {
				decryptedData = expressionResolveValues.workflow.expression.getParameterValue(
					decryptedData as INodeParameters,
					expressionResolveValues.runExecutionData,
					expressionResolveValues.runIndex,
					expressionResolveValues.itemIndex,
					expressionResolveValues.node.name,
					expressionResolveValues.connectionInputData,
					mode,
					additionalKeys,
					executeData,
					false,
					decryptedData,
				) as ICredentialDataDecryptedObject;
			} catch (e) {
				if (e instanceof Error) e.message += ' [Error resolving credentials]';
				throw e;
			}
		} else {
			const workflow = new Workflow({
				nodes: [{ ...mockNode }],
				connections: {},
				active: false,
				nodeTypes: mockNodeTypes,
			});
			decryptedData = workflow.expression.getComplexParameterValue(
				mockNode,
				decryptedData as INodeParameters,
				mode,
				additionalKeys,
				undefined,
				undefined,
				decryptedData,
			) as ICredentialDataDecryptedObject;
		}
		return decryptedData;
	}

	/** Encrypts and writes the whole object, like n8n's `credentialsRepository.update`. */
	async updateCredentials(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		const credentials = await this.getCredentials(nodeCredentials, type);
		credentials.setData(data);
		const encrypted = credentials.getDataToSave().data as string;
		this.store.update(credentials.id as string, type, encrypted);
		this.store.updates.push({ id: credentials.id as string, type, data: credentials.getData() });
	}

	async updateCredentialsOauthTokenData(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		const credentials = await this.getCredentials(nodeCredentials, type);
		credentials.updateData({ oauthTokenData: data.oauthTokenData });
		this.store.update(credentials.id as string, type, credentials.getDataToSave().data as string);
		this.store.updates.push({ id: credentials.id as string, type, data: credentials.getData() });
	}
}
