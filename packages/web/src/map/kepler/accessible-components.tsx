import { cloneElement, isValidElement, memo, useCallback, useLayoutEffect, useMemo, type ComponentType, type ReactElement } from 'react';
import { useIntl } from 'react-intl';
import styled from 'styled-components';
import { SortableContext, useSortable, verticalListSortingStrategy } from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import { InlineInput, LayerPanelFactory, MapControlTooltipFactory, SORTABLE_LAYER_TYPE, SORTABLE_SIDE_PANEL_TYPE, type LayerListProps, type LayerTitleSectionProps } from '@kepler.gl/components';
import { dataTestIds } from '@kepler.gl/constants';
import { LayerDrawNote, PendingDraws } from '../tile-choice/DrawChoices';

/**
 * Replacements for the kepler components that an axe-core run (WCAG 2 A/AA) found wanting in the map builder,
 * each keeping kepler's behaviour and look (packages/web/e2e/screens.e2e.ts runs axe on every screen).
 */

/** Map controls whose button shows its own text (the locale's "EN"): that text stays the button's name. */
const CONTROLS_WITH_TEXT = new Set(['locale']);

/**
 * kepler's map controls (split map, 3D, draw, legend) are icon-only buttons whose only words are a hover
 * tooltip: a screen reader announced "button" and nothing more (axe: button-name). Every one of them sits in
 * a MapControlTooltip, so this wrapper gives its button the tooltip's own text, in the map's locale, as its name.
 */
export function StudioMapControlTooltipFactory() {
  const Base = MapControlTooltipFactory();
  const StudioMapControlTooltip = memo(function StudioMapControlTooltip({ id, message, children }: { id: string; message: string; children?: ReactElement }) {
    const intl = useIntl();
    const named = isValidElement<{ 'aria-label'?: string }>(children) && !CONTROLS_WITH_TEXT.has(id) && !children.props['aria-label']
      ? cloneElement(children, { 'aria-label': intl.formatMessage({ id: message }) })
      : children;
    return <Base id={id} message={message}>{named}</Base>;
  });
  return StudioMapControlTooltip;
}

const TitleSection = styled.div`
  margin-left: 4px;
  flex-grow: 1;
  align-items: center;
  display: flex;
  .layer__title__type {
    color: ${(p) => p.theme.subtextColor};
    font-size: 10px;
    line-height: 12px;
    letter-spacing: 0.37px;
    text-transform: capitalize;
  }
`;

/**
 * kepler's layer title: the layer's name is an inline text field with no label (axe: label), so a screen
 * reader read an unnamed edit box. The same field and type line, the field named "Layer name".
 */
export function StudioLayerTitleSectionFactory() {
  const LayerTitleSection = ({ layerId, label, layerType, onUpdateLayerLabel, onFocus, onBlur }: LayerTitleSectionProps) => {
    const intl = useIntl();
    return (
      <TitleSection className="layer__title">
        <div>
          <InlineInput type="text" className="layer__title__editor" data-testid={dataTestIds.layerTitleEditor} aria-label="Layer name" value={label ?? ''}
            onClick={(e: { stopPropagation: () => void }) => e.stopPropagation()} onChange={onUpdateLayerLabel} onFocus={onFocus} onBlur={onBlur} id={`${layerId}:input-layer-label`} />
          <div className="layer__title__type">{layerType ? intl.formatMessage({ id: `layer.type.${layerType.toLowerCase()}` }) : null}</div>
        </div>
      </TitleSection>
    );
  };
  return LayerTitleSection;
}

const SortableItemFrame = styled.div<{ $transform?: string; $transition?: string }>`
  position: relative;
  transition: ${(p) => p.$transition};
  transform: ${(p) => p.$transform};
  &.sorting {
    opacity: 0.3;
    pointer-events: none;
  }
`;

/**
 * The keyboard's way to reorder layers (dragging the handle is the pointer's): two buttons out of sight until
 * one of them has focus, then shown over the top of the layer's panel, so the panel keeps kepler's look.
 */
const MoveButtons = styled.div`
  position: absolute;
  top: 2px;
  right: 2px;
  z-index: 2;
  display: flex;
  gap: 4px;
  &:not(:focus-within) {
    clip-path: inset(50%);
    width: 1px;
    height: 1px;
    overflow: hidden;
  }
  button {
    font: inherit;
    font-size: 11px;
    padding: 2px 6px;
    color: ${(p) => p.theme.textColorHl};
    background: ${(p) => p.theme.panelBackgroundHover};
    border: 1px solid ${(p) => p.theme.textColorHl};
    border-radius: 3px;
    cursor: pointer;
  }
  button:disabled {
    opacity: 0.4;
    cursor: default;
  }
`;

/**
 * The button a move was made with: the list draws the panels in their new order, which drops the focus, so
 * the moved layer's panel takes it back once drawn in its new place (the other button when this one is now
 * off: a layer moved to the end has no "Move down").
 */
let focusAfterMove: { id: string; word: 'up' | 'down' } | null = null;
function refocusMoved(layerId: string) {
  if (focusAfterMove?.id !== layerId) return;
  const button = (word: string) => document.getElementById(`${layerId}:move-${word}`) as HTMLButtonElement | null;
  const [same, other] = [button(focusAfterMove.word), button(focusAfterMove.word === 'up' ? 'down' : 'up')];
  focusAfterMove = null;
  (same && !same.disabled ? same : other)?.focus();
}

type Layer = LayerListProps['layers'][number];

/**
 * kepler's layer list puts dnd-kit's sortable attributes (role="button", tabindex) on the frame around each
 * layer's whole panel, whose own buttons and fields then sit inside a button (axe: nested-interactive), and
 * that frame took keyboard focus without any key doing anything (dragging starts from the panel's handle,
 * which holds the listeners). This list is kepler's, with the frame a plain container, and "Move up" / "Move
 * down" buttons for the keyboard (kepler's drag handle takes no focus, so a keyboard could not reorder layers).
 * It also says under each layer how its dataset is drawn (from tiles or all rows, and why: tile-choice/), and above
 * them the datasets whose tiles are being cut.
 */
export function StudioLayerListFactory(LayerPanel: ReturnType<typeof LayerPanelFactory>) {
  // kepler's own list hands the panel these same props; its declared panel props type `listeners` wrongly.
  const Panel = LayerPanel as ComponentType<Record<string, unknown>>;
  type Move = (id: string, by: -1 | 1) => void;
  const SortableItem = ({ layer, idx, place, panelProps, layerActions, disabled, move }: { layer: Layer; idx: number; place: { at: number; first: boolean; last: boolean }; panelProps: object; layerActions: object; disabled: boolean; move: Move }) => {
    const { listeners, setNodeRef, isDragging, transform, transition } = useSortable({ id: layer.id, data: { type: SORTABLE_LAYER_TYPE, parent: SORTABLE_SIDE_PANEL_TYPE }, disabled });
    useLayoutEffect(() => refocusMoved(layer.id), [layer.id, place.at]);
    const name = layer.config.label || 'layer';
    const button = (by: -1 | 1, word: 'up' | 'down', off: boolean) => (
      <button type="button" id={`${layer.id}:move-${word}`} disabled={off} aria-label={`Move ${name} ${word}`} onClick={() => { focusAfterMove = { id: layer.id, word }; move(layer.id, by); }}>
        {word === 'up' ? '↑ Up' : '↓ Down'}
      </button>
    );
    return (
      <SortableItemFrame ref={setNodeRef} className={[disabled ? dataTestIds.staticLayerItem : dataTestIds.sortableLayerItem, isDragging ? 'sorting' : ''].join(' ').trim()}
        data-testid={disabled ? dataTestIds.staticLayerItem : dataTestIds.sortableLayerItem} $transform={CSS.Transform.toString(transform)} $transition={transition}>
        {disabled || (place.first && place.last) ? null : <MoveButtons>{button(-1, 'up', place.first)}{button(1, 'down', place.last)}</MoveButtons>}
        <Panel {...panelProps} {...layerActions} key={layer.id} idx={idx} layer={layer} listeners={listeners} isDraggable={!disabled} />
        <LayerDrawNote dataId={layer.config.dataId} />
      </SortableItemFrame>
    );
  };

  const LayerList = ({ layers, datasets, layerOrder, layerClasses, isSortable = true, splitMap, uiStateActions, visStateActions, mapStateActions }: LayerListProps) => {
    const shown = useMemo(() => layerOrder.map((id) => layers.find((l) => l?.id === id)).filter((l): l is Layer => Boolean(l) && !l!.config.hidden), [layers, layerOrder]);
    const ids = useMemo(() => shown.map((l) => l.id), [shown]);
    const layerTypeOptions = useMemo(() => (Object.keys(layerClasses) as (keyof typeof layerClasses)[]).map((key) => {
      // Every layer class is built from a config with its data id; kepler's list does the same to read each one's name and icon.
      const LayerClass = layerClasses[key] as unknown as new (config: { dataId: string }) => { name: string; layerIcon: unknown; requireData: boolean };
      const sample = new LayerClass({ dataId: '' });
      return { id: key, label: sample.name, icon: sample.layerIcon, requireData: sample.requireData };
    }), [layerClasses]);
    const layerActions = useMemo(() => ({
      layerColorUIChange: visStateActions.layerColorUIChange,
      layerConfigChange: visStateActions.layerConfigChange,
      layerVisualChannelConfigChange: visStateActions.layerVisualChannelConfigChange,
      layerToggleVisibility: visStateActions.layerToggleVisibility,
      layerTypeChange: visStateActions.layerTypeChange,
      layerVisConfigChange: visStateActions.layerVisConfigChange,
      layerTextLabelChange: visStateActions.layerTextLabelChange,
      removeLayer: visStateActions.removeLayer,
      zoomToLayer: mapStateActions.fitBounds,
      duplicateLayer: visStateActions.duplicateLayer,
      layerSetIsValid: visStateActions.layerSetIsValid,
    }), [visStateActions, mapStateActions]);
    const panelProps = useMemo(() => ({ datasets, openModal: uiStateActions.toggleModal, layerTypeOptions, splitMap }), [datasets, uiStateActions, layerTypeOptions, splitMap]);
    // One step up or down the list the user sees (hidden layers keep their places in kepler's order).
    const move = useCallback<Move>((id, by) => {
      const next = ids[ids.indexOf(id) + by];
      if (!next) return;
      const order = [...layerOrder];
      const [a, b] = [order.indexOf(id), order.indexOf(next)];
      [order[a], order[b]] = [order[b]!, order[a]!];
      visStateActions.reorderLayer(order);
    }, [ids, layerOrder, visStateActions]);
    return (
      <div style={{ display: 'flex', flexDirection: 'column', gap: 8 }}>
        <PendingDraws />
        <SortableContext id={SORTABLE_SIDE_PANEL_TYPE} items={ids} strategy={verticalListSortingStrategy} disabled={!isSortable}>
          {shown.map((layer, at) => (
            <SortableItem key={layer.id} layer={layer} idx={layers.findIndex((l) => l?.id === layer.id)} place={{ at, first: at === 0, last: at === shown.length - 1 }} panelProps={panelProps} layerActions={layerActions} disabled={!isSortable} move={move} />
          ))}
        </SortableContext>
      </div>
    );
  };
  return LayerList;
}
StudioLayerListFactory.deps = [LayerPanelFactory];
