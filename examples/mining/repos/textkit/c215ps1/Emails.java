package org.example.textkit;

public final class Emails {

    public static String domain(String address) {
        int at = address.indexOf('@');
        return address.substring(at + 1);
    }
}
