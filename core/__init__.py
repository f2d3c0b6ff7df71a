"""The bottom layer: state schemas, Context classes, the model/embedding factory."""
