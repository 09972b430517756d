import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';

/**
 * The property, shown only where `scope` says (its resource, its operation) on top of the
 * conditions it brings itself (Return All off, a node version). The forms call this once for every
 * property an operation or a trigger resource returns, so a field can never leak onto every form.
 */
export function scoped(property: INodeProperties, scope: IDisplayOptions): INodeProperties {
	const own = property.displayOptions;
	const displayOptions: IDisplayOptions = { ...own, show: { ...own?.show, ...scope.show } };
	if (own?.hide || scope.hide) displayOptions.hide = { ...own?.hide, ...scope.hide };
	return { ...property, displayOptions };
}
