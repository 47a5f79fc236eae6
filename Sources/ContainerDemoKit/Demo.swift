public import Container
