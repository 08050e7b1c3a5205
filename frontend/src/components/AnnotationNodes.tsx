// Sticky notes and groups on the canvas (graph/annotations.ts). A note's
// text is shown as text (never as HTML: data never becomes code) and
// edited in place (double-click or Enter); a group is a titled frame that
// moves its nodes with it. Both resize and take a colour when selected.
import { NodeResizer, type NodeProps } from '@xyflow/react';
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { COLORS, MAX_GROUP_TITLE, MAX_NOTE_TEXT, MIN_SIZE, type GroupFlowNode, type NoteFlowNode } from '../graph/annotations';
import { useStore } from '../store';
import './annotations.css';

function Colors({ kind, id, current }: { kind: 'note' | 'group'; id: string; current: string }) {
  return (
    <div className="annotation-colors nodrag" role="group" aria-label="Colour">
      {COLORS.map((c) => (
        <button
          key={c}
          type="button"
          className={`annotation-color color-${c}${c === current ? ' current' : ''}`}
          aria-label={c}
          aria-pressed={c === current}
          title={c}
          data-testid={`${kind}-color-${c}`}
          onClick={() => useStore.getState().setAnnotationColor(kind, id, c)}
        />
      ))}
    </div>
  );
}

function Resizer({ kind, id, selected }: { kind: 'note' | 'group'; id: string; selected: boolean }) {
  return (
    <NodeResizer
      isVisible={selected}
      minWidth={MIN_SIZE * 4}
      minHeight={MIN_SIZE * 2}
      lineClassName="annotation-resize-line"
      handleClassName="annotation-resize-handle"
      onResizeEnd={(_, p) => useStore.getState().placeAnnotation(kind, id, { x: p.x, y: p.y }, { width: p.width, height: p.height })}
    />
  );
}

/** useInPlaceEdit: editing starts on double-click or Enter, ends on blur or Escape. */
function useInPlaceEdit<T extends HTMLElement>() {
  const [editing, setEditing] = useState(false);
  const field = useRef<T>(null);
  useEffect(() => {
    if (editing) field.current?.focus();
  }, [editing]);
  const stop = () => {
    setEditing(false);
    useStore.getState().endEditGroup();
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (!editing && e.key === 'Enter') {
      e.preventDefault();
      setEditing(true);
    }
  };
  return { editing, field, stop, start: () => setEditing(true), onKeyDown };
}

export function NoteNode({ data, selected }: NodeProps<NoteFlowNode>) {
  const n = data.note;
  const color = n.color ?? 'yellow';
  const { editing, field, stop, start, onKeyDown } = useInPlaceEdit<HTMLTextAreaElement>();
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.stopPropagation();
      stop();
    }
  };
  return (
    <div
      className={`sticky-note color-${color}`}
      data-testid="sticky-note"
      data-note-id={n.id}
      onDoubleClick={start}
      onKeyDown={onKeyDown}
    >
      <Resizer kind="note" id={n.id} selected={!!selected} />
      <div className="note-drag" aria-hidden />
      {editing ? (
        <textarea
          ref={field}
          className="note-text nodrag nowheel"
          aria-label="Note text"
          data-testid="note-textarea"
          value={n.text}
          maxLength={MAX_NOTE_TEXT}
          onChange={(e) => useStore.getState().setNoteText(n.id, e.target.value)}
          onBlur={stop}
          onKeyDown={onKey}
        />
      ) : (
        <div className="note-text nowheel" data-testid="note-text" tabIndex={0} role="textbox" aria-readonly aria-multiline title="Double-click or Enter to edit">
          {n.text || <span className="note-placeholder">Double-click to write a note</span>}
        </div>
      )}
      {selected && !editing && <Colors kind="note" id={n.id} current={color} />}
    </div>
  );
}

export function GroupNode({ data, selected }: NodeProps<GroupFlowNode>) {
  const g = data.group;
  const color = g.color ?? 'gray';
  const { editing, field, stop, start, onKeyDown } = useInPlaceEdit<HTMLInputElement>();
  return (
    <div className={`canvas-group color-${color}`} data-testid="canvas-group" data-group-id={g.id}>
      <Resizer kind="group" id={g.id} selected={!!selected} />
      <div className="group-title" onDoubleClick={start} onKeyDown={onKeyDown} tabIndex={editing ? -1 : 0} role="button" aria-label="Group title (Enter to rename)">
        {editing ? (
          <input
            ref={field}
            className="group-title-input nodrag"
            aria-label="Group title"
            data-testid="group-title-input"
            value={g.title}
            maxLength={MAX_GROUP_TITLE}
            onChange={(e) => useStore.getState().setGroupTitle(g.id, e.target.value)}
            onBlur={stop}
            onKeyDown={(e) => {
              if (e.key === 'Escape' || e.key === 'Enter') {
                e.stopPropagation();
                stop();
              }
            }}
          />
        ) : (
          <span data-testid="group-title">{g.title || 'Untitled group'}</span>
        )}
      </div>
      {selected && !editing && <Colors kind="group" id={g.id} current={color} />}
    </div>
  );
}

export const annotationNodeTypes = { note: NoteNode, frame: GroupNode };
