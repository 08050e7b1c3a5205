// The app's one set of assistant actions, on the app store and the real api.
import { api } from '../../api';
import { useStore } from '../../store';
import { actions } from '../../store/actions';
import { makeAssistantActions } from '../../store/assistantActions';

export const assistantActions = makeAssistantActions(useStore, api, { validate: () => actions.validate() });
