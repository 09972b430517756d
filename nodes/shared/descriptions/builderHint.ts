import type { INodePropertyOptions, INodeTypeDescription } from 'n8n-workflow';

/**
 * n8n's metadata for its AI Workflow Builder, the workflow-builder tools of its MCP server and its
 * node search: `builderHint` on a node description and on the options of a Resource or Operation
 * choice (read by n8n 2.41; docs/ai-agents.md). The pinned n8n-workflow 2.8 types have no such
 * property, so the package declares the shapes it uses, as subsets of n8n's own
 * (`IBuilderHint`, `IParameterBuilderHint`, `IRelatedNode`): an n8n that does not know the property
 * (2.8) keeps it in the description and never reads it.
 *
 * n8n's loader refuses a builderHint on the Resource or Operation property itself (it is never
 * shown there); it belongs on each option, or on the node.
 */
export interface ParameterBuilderHint {
	/** When to choose this option, in the words of a request ("list everyone changed since …"). */
	propertyHint: string;
}

export interface RelatedNode {
	/** The node type, e.g. `n8n-nodes-base.extractFromFile`. */
	nodeType: string;
	relationHint: string;
}

export interface NodeBuilderHint {
	/** What the node is for, shown next to it in the builder's node search. */
	searchHint: string;
	relatedNodes?: RelatedNode[];
}

/** A node description that carries n8n's builder hint. */
export type HintedNodeDescription = INodeTypeDescription & { builderHint?: NodeBuilderHint };

/** An option of a Resource or Operation choice that carries its builder hint. */
export type HintedOption = INodePropertyOptions & { builderHint?: ParameterBuilderHint };

/** The package's node type names, as n8n and the builder refer to them. */
export const NODE_TYPES = {
	action: 'n8n-nodes-personnel-data.personnelData',
	trigger: 'n8n-nodes-personnel-data.personnelDataTrigger',
} as const;
