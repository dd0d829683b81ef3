"""``Updater``: the interface the trainer drives (one ``update`` per
iteration)."""


class Updater:
    """Base class of updaters.

    An updater owns the iterators and optimizers of a training job;
    ``update()`` runs one iteration, and ``serialize`` saves and restores
    everything needed to resume.
    """

    def connect_trainer(self, trainer):
        """Called by the ``Trainer`` that drives this updater."""

    def finalize(self):
        """Release resources (called when the training loop ends)."""
        raise NotImplementedError(
            '{}: an Updater must implement finalize'.format(
                type(self).__name__))

    def get_optimizer(self, name):
        """The optimizer registered under ``name``."""
        raise NotImplementedError(
            '{}: an Updater must implement get_optimizer'.format(
                type(self).__name__))

    def get_all_optimizers(self):
        """A dict of every optimizer, keyed by name."""
        raise NotImplementedError(
            '{}: an Updater must implement get_all_optimizers'.format(
                type(self).__name__))

    def update(self):
        """Run one iteration of training."""
        raise NotImplementedError(
            '{}: an Updater must implement update'.format(
                type(self).__name__))

    def serialize(self, serializer):
        """Save or load the updater's state."""
        raise NotImplementedError(
            '{}: an Updater must implement serialize'.format(
                type(self).__name__))
