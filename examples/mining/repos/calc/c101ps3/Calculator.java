package org.example.calc;

public class Calculator {
    private int scale = 2;

    public int add(int a, int b) {
        return a + b;
    }

    public int subtract(int a, int b) {
        return a - b;
    }

    public int divide(int a, int b) {
        if (b == 0) {
            throw new ArithmeticException("division by zero");
        }
        return a / b;
    }

    public int mod(int a, int b) {
        if (b == 0) {
            final String message = "modulo by zero";
            throw new ArithmeticException(message);
        }
        return a % b;
    }
}
