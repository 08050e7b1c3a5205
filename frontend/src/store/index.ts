// The app store: one zustand store composed of typed slices.
import { create } from 'zustand';
import { createAnnotationSlice, type AnnotationSlice } from './annotationSlice'; // notes and groups
import { createAssistantSlice, type AssistantSlice } from './assistantSlice'; // assistant panel
import { createProblemsSlice, type ProblemsSlice } from './problemsSlice';
import { createRunSlice, type RunSlice } from './runSlice'; // run panel
import { createSecretsSlice, type SecretsSlice } from './secretsSlice'; // secrets a workflow lacks
import { createSelectionSlice, type SelectionSlice } from './selectionSlice';
import { createTestsSlice, type TestsSlice } from './testsSlice'; // tests panel
import { createTrustSlice, type TrustSlice } from './trustSlice'; // the file's trust
import { createUiSlice, type UiSlice } from './uiSlice';
import { createWorkflowSlice, type WorkflowSlice } from './workflowSlice';

export type StoreState = WorkflowSlice & AnnotationSlice & ProblemsSlice & SelectionSlice & UiSlice & AssistantSlice & RunSlice & TrustSlice & SecretsSlice & TestsSlice; // RunSlice: run panel

export function createAppStore() {
  return create<StoreState>()((...a) => ({
    ...createWorkflowSlice(...a),
    ...createAnnotationSlice(...a),
    ...createProblemsSlice(...a),
    ...createSelectionSlice(...a),
    ...createUiSlice(...a),
    ...createAssistantSlice(...a), // assistant panel
    ...createRunSlice(...a), // run panel
    ...createTrustSlice(...a),
    ...createSecretsSlice(...a),
    ...createTestsSlice(...a),
  }));
}

export const useStore = createAppStore();
export type AppStore = typeof useStore;
